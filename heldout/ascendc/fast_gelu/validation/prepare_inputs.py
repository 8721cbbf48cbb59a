import torch


def get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1]'))
    dtype = getattr(torch, param.get('dtype', 'float32'))
    return [(torch.randn(shape, device=device, dtype=torch.float32) * 3).to(dtype)]


def get_init_inputs(param, device=None):
    return []
