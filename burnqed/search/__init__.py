"""burnqed.search"""
