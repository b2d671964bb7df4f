"""Gradients: ``xb.grad`` / ``xb.value_and_grad`` (``transform.py``), autograd on Arrays (``autograd.py``)."""
