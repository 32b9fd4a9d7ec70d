"""burnqed.iteration"""
