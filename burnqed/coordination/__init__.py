"""burnqed.coordination: the coordinator daemon, sessions, brains and the agent loop."""
