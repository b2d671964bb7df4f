"""The CuPy backend (CUDA): ``backend.py`` the class, ``fixes.py`` the kernels CuPy gets wrong."""
