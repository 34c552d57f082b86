"""Evaluators: what the home shows after an agent acted — checks of final states, directions and schedules,
the state comparison they share, and the seam a judge implements. ``evaluate.evaluate_episode`` scores one episode."""
