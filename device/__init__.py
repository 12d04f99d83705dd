"""The phone: drives any adb device through adbutils and uiautomator2 (docs/phone.md)."""
