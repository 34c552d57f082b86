"""The home fabric: rooms, devices, the virtual clock, physics, workflows and the event bus."""
