import torch


def get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1, 1]'))
    x = torch.randn(shape, device=device, dtype=torch.float32)
    b = torch.randn(shape[-1:], device=device, dtype=torch.float32)
    return (x, b)


def get_init_inputs(param, device=None):
    return []
