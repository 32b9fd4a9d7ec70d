"""burnqed.ebm"""
