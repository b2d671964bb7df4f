"""Parts shared by several backends: kernels written once over a NumPy-like namespace, index-key walks."""
