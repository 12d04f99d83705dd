"""The simulator: MobileGym-style apps whose state lives in Python and renders in Chromium."""
