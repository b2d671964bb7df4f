"""Any library with the Array API standard (array-api-strict, JAX): ``backend.py`` the classes."""
