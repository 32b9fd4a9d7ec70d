"""burnqed.audit"""
