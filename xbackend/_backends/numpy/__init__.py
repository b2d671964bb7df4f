"""The NumPy backend (CPU): ``backend.py`` the class, ``fast.py`` its fast paths, ``linalg.py`` its linear algebra."""
