"""ascendc-cpu: AscendC vector kernels compiled with g++ against an emulation of the AscendC API, and run."""
