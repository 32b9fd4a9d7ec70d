"""burnqed.data"""
