import torch


def get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1]'))
    return (torch.randn(shape, device=device, dtype=torch.float32),)


def get_init_inputs(param, device=None):
    return []
