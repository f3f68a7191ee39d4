"""``python -m pytensor``: what happened at import, phase by phase, and what the core holds."""

from __future__ import annotations

import pytensor
from pytensor import _C


def _main() -> None:
    report = _C._init_report()
    config = report["config"]
    print(f"pytensor {pytensor.__version__}")
    print("\nstart-up (pt_init):")
    width = max((len(p["name"]) for p in report["phases"] + report["python_phases"]), default=0)
    for p in report["phases"]:
        print(f"  {p['name'].ljust(width)}  {p['us']:10.1f} us  {p['count']:6d}  {p['detail']}")
    print("\nstart-up (_initExtension):")
    for p in report["python_phases"]:
        print(f"  {p['name'].ljust(width)}  {p['us']:10.1f} us  {p['count']:6d}  {p['detail']}")
    print()
    cap = config.get("cpu_capability", "?")
    detected = config.get("cpu_capability_detected", "?")
    source = config.get("cpu_capability_source", "")
    print(f"cpu capability: {cap} (detected: {detected}{', ' + source if source else ''})")
    for key in ("blis", "onednn", "lapack", "openmp", "cuda", "cuda_library"):
        if key in config:
            print(f"{key}: {config[key]}")
    print(f"cuda available: {pytensor.cuda.is_available()} "
          f"({pytensor.cuda.device_count()} devices)")
    print("\nregistries:")
    registries = _C._registries()
    width = max((len(name) for name in registries), default=0)
    for name, entries in registries.items():
        keys = ", ".join(e["key"] for e in entries[:8]) + (", ..." if len(entries) > 8 else "")
        print(f"  {name.ljust(width)}  {len(entries):4d} keys  {keys}")
    from ._C import ffi, lib
    n = lib.pt_autograd_formula_count()
    ops = [ffi.string(lib.pt_autograd_formula_op(i)).decode() for i in range(n)]
    print(f"\nautograd: {n} operators with a backward formula (csrc/ops/derivatives.yaml); the "
          "others raise \"the derivative for 'op' is not implemented\" at backward")
    line = " "
    for name in ops:
        name = name.replace("aten::", "")
        if len(line) + len(name) + 2 > 100:
            print(line)
            line = " "
        line += f" {name},"
    if ops:
        print(line.rstrip(","))


if __name__ == "__main__":
    _main()
