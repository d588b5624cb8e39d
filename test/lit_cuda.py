"""Shared by the lit configurations: does a CUDA device answer here?"""
import ctypes


def cuda_device_answers():
    """True only where a CUDA driver is loaded and reports at least one device."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    if cuda.cuInit(0) != 0:
        return False
    count = ctypes.c_int(0)
    return cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0
