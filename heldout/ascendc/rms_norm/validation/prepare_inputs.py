import torch


def get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1]'))
    dtype = getattr(torch, param.get('dtype', 'float32'))
    x = torch.randn(shape, device=device, dtype=torch.float32) * 3
    gamma = torch.rand(shape[-1:], device=device, dtype=torch.float32) + 0.5
    return [x.to(dtype), gamma.to(dtype)]


def get_init_inputs(param, device=None):
    return [float(param.get('epsilon', 1e-6))]
