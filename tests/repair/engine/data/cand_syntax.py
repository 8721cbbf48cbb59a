"""Test fixture: does not parse."""
class ModelNew(nn.Module:
    pass
