"""burnqed.blueprint"""
