"""The MQTT bridge: a home's devices as retained JSON state, commands and Home Assistant discovery.

Built on aiomqtt (the maintained successor of asyncio-mqtt). See topics.py for the topic layout.
"""

from bridge.mqtt.bridge import MqttBridge

__all__ = ["MqttBridge"]
