"""The Cubed backend (lazy, chunked, bounded memory): ``backend.py`` the class."""
