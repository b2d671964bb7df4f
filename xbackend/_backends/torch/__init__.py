"""The PyTorch backend (CPU and CUDA): ``backend.py`` the class; one module per concern beside it."""
