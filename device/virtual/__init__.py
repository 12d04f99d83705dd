"""The virtual phone: a simulator instance presented as a real adb device."""
