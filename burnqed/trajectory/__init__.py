"""burnqed.trajectory"""
