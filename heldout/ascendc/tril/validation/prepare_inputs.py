import torch


def get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1, 1]'))
    dtype = getattr(torch, param.get('dtype', 'float32'))
    return [torch.randn(shape, device=device, dtype=dtype)]


def get_init_inputs(param, device=None):
    return [int(param.get('diagonal', 0))]
