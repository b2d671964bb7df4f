"""The Dask backend (lazy, chunked): ``backend.py`` the class, ``index.py`` its indexing."""
