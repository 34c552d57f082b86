"""The emulated home: rooms, devices, the virtual clock, physics, workflows and the event bus."""
