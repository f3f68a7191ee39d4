"""The training examples of examples/, run shortened: the spiral MLP (SGD + momentum + a
schedule), the character transformer (AdamW, clipping, causal mask, sampling) and, with
scikit-learn, the digits CNN, whose checkpoint must load back into pytensor and, with torch, into
PyTorch with the same predictions. Each test asserts a result that a broken layer, optimizer or
loader would miss."""
import math
import os
import re
import subprocess
import sys
import types

import numpy as np
import pytest

import pytensor
from _torch_oracle import requires_torch, torch

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "examples")
sys.path.insert(0, EXAMPLES)

DIGITS_EPOCHS = 20      # the example's default: >= 97% test accuracy for the seeds 0-5 measured


def _example_on_torch(name):
    """The example's own source with its pytensor imports turned into torch imports (`import
    pytensor as torch` -> `import torch as torch`, `from pytensor import nn` -> `from torch import
    nn`), as a module: the same lines run on PyTorch."""
    path = os.path.join(EXAMPLES, name + ".py")
    with open(path) as f:
        source = re.sub(r"^(import|from) pytensor\b", r"\1 torch", f.read(), flags=re.M)
    module = types.ModuleType(name + "_on_torch")
    module.__file__ = path
    exec(compile(source, path, "exec"), module.__dict__)
    assert module.torch is torch
    return module


# ---------------------------------------------------------------------------------- spiral MLP

def test_mlp_on_spirals_learns():
    import train_mlp
    r = train_mlp.train(epochs=100, seed=0, progress=False)
    losses = r["losses"]
    assert abs(losses[0] - math.log(3)) < 0.1            # starts at chance
    assert losses[-1] < losses[0] / 10                   # measured: / 130
    assert r["train_acc"] >= 0.97 and r["test_acc"] >= 0.95   # measured: 0.999 and 1.0


def test_mlp_spirals_are_seeded():
    import train_mlp
    g1, g2 = pytensor.Generator().manual_seed(3), pytensor.Generator().manual_seed(3)
    x1, y1 = train_mlp.make_spirals(50, 3, generator=g1)
    x2, y2 = train_mlp.make_spirals(50, 3, generator=g2)
    assert x1.shape == (150, 2) and y1.tolist() == [0] * 50 + [1] * 50 + [2] * 50
    # (a == b).all(): pytensor has no torch.equal / torch.allclose yet
    assert (x1 == x2).all() and (y1 == y2).all()


# ------------------------------------------------------------------------- character transformer

def test_char_transformer_loss_falls_and_samples():
    import train_chars
    r = train_chars.train(steps=60, seed=0, sample_chars=20, progress=False)
    ln_v = r["ln_vocab"]
    assert abs(r["losses"][0] - ln_v) < 0.6              # an untrained model is near uniform
    assert np.mean(r["losses"][-10:]) < ln_v - 1.5       # measured: ~2.4 against ln(88) = 4.48
    assert r["val_loss_end"] < r["val_loss_start"] - 1.5
    text = train_chars.load_text()
    assert r["sample"].startswith("def ") and len(r["sample"]) == 4 + 20
    assert set(r["sample"]) <= set(text)


def test_char_transformer_is_causal():
    import train_chars
    pytensor.manual_seed(0)
    model = train_chars.CharTransformer(vocab_size=30, block_size=16).eval()
    idx = pytensor.randint(30, (2, 16))
    changed = idx.clone()
    changed[:, -1] = (changed[:, -1] + 1) % 30
    with pytensor.no_grad():
        a, b = model(idx), model(changed)
    # the past never sees the future; the last position does see its own token
    np.testing.assert_allclose(a[:, :-1].numpy(), b[:, :-1].numpy(), atol=1e-6)
    assert (a[:, -1] - b[:, -1]).abs().max().item() > 1e-4


@requires_torch
def test_char_transformer_state_dict_runs_in_torch(tmp_path):
    import train_chars
    pytensor.manual_seed(0)
    model = train_chars.CharTransformer(vocab_size=40, block_size=32).eval()
    pytensor.save(model.state_dict(), tmp_path / "chars.pt")
    theirs = _example_on_torch("train_chars").CharTransformer(vocab_size=40, block_size=32).eval()
    theirs.load_state_dict(torch.load(tmp_path / "chars.pt"))
    idx = np.random.RandomState(0).randint(0, 40, (3, 32))
    with pytensor.no_grad():
        a = model(pytensor.tensor(idx)).numpy()
    with torch.no_grad():
        b = theirs(torch.from_numpy(idx)).numpy()
    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


# -------------------------------------------------------------------------------------- digits

@pytest.fixture(scope="module")
def digits_run(tmp_path_factory):
    pytest.importorskip("sklearn")
    import train_digits
    out = tmp_path_factory.mktemp("digits")
    return train_digits, train_digits.train(DIGITS_EPOCHS, str(out), seed=0, progress=False)


def _test_images(run):
    images, labels = zip(*[run["test_set"][i] for i in range(len(run["test_set"]))])
    return pytensor.stack(images), pytensor.stack(labels)


def test_digits_reaches_97_percent(digits_run):
    _, r = digits_run
    assert r["test_acc"] >= 0.97                         # measured: 0.983 (seed 0)
    h = r["history"]
    assert h["train_loss"][-1] < h["train_loss"][0] / 10
    assert len(r["test_set"]) == 359                     # random_split's 20% of 1,797
    if r["curves"] is not None:
        with open(r["curves"], "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_digits_checkpoint_loads_into_a_fresh_model(digits_run):
    train_digits, r = digits_run
    ck = pytensor.load(r["checkpoint"])
    assert ck["epoch"] == DIGITS_EPOCHS
    fresh = train_digits.DigitsCNN()
    fresh.load_state_dict(ck["model_state_dict"])
    optimizer = pytensor.optim.Adam(fresh.parameters())
    optimizer.load_state_dict(ck["optimizer_state_dict"])
    steps_per_epoch = math.ceil((1797 - 359) / 32)
    assert all(s["step"].item() == DIGITS_EPOCHS * steps_per_epoch
               for s in optimizer.state.values())
    images, _ = _test_images(r)
    r["model"].eval()
    fresh.eval()
    with pytensor.no_grad():
        assert (fresh(images) == r["model"](images)).all()


@requires_torch
def test_digits_checkpoint_opens_in_torch_with_the_same_predictions(digits_run):
    _, r = digits_run
    ck = torch.load(r["checkpoint"])                     # weights_only=True, torch's default
    assert ck["epoch"] == DIGITS_EPOCHS

    model = _example_on_torch("train_digits").DigitsCNN()
    model.load_state_dict(ck["model_state_dict"])
    model.eval()
    torch.optim.Adam(model.parameters()).load_state_dict(ck["optimizer_state_dict"])
    images, labels = _test_images(r)
    with pytensor.no_grad():
        r["model"].eval()
        ours = r["model"](images).numpy()
    with torch.no_grad():
        theirs = model(torch.from_numpy(images.numpy())).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)
    assert (ours.argmax(1) == theirs.argmax(1)).all()
    assert (theirs.argmax(1) == labels.numpy()).mean() >= 0.97


def test_digits_without_optional_packages(tmp_path, monkeypatch, capsys):
    pytest.importorskip("sklearn")
    import train_digits
    monkeypatch.setitem(sys.modules, "tqdm", None)       # `import tqdm` raises ImportError
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    r = train_digits.train(1, str(tmp_path), seed=0, progress=True)
    out = capsys.readouterr().out
    assert "epoch   1" in out and "matplotlib is not installed" in out
    assert r["curves"] is None and os.path.exists(r["checkpoint"])


def test_digits_without_sklearn_exits_with_the_install_hint():
    code = ("import runpy, sys; sys.modules['sklearn'] = None; "
            "sys.argv = ['train_digits.py', '--epochs', '1']; "
            f"runpy.run_path({os.path.join(EXAMPLES, 'train_digits.py')!r}, run_name='__main__')")
    # the child finds pytensor the way this process did (PYTHONPATH, or the installed package)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 1
    assert "pip install scikit-learn" in proc.stderr
