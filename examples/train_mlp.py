"""Training an MLP to tell apart three interleaved 2-D spirals with `import pytensor as torch`:
nn.Sequential of Linear/ReLU, SGD with momentum, a cosine learning-rate schedule
(lr_scheduler.CosineAnnealingLR) stepped once an epoch, and a DataLoader over a TensorDataset. The
points (two turns per arm, angular noise) are drawn in the script from a seeded torch.Generator and
standardised with the training set's mean and std, so nothing beyond pytensor is needed. With the
defaults (100 epochs, about a second) it reaches 99-100% train and 98.5-100% test accuracy
(seeds 0-5; seed 0: 99.9% and 100%), the loss falling from ln 3 ~ 1.1 to about 0.01.

    python examples/train_mlp.py [--epochs 100] [--seed 0] [--classes 3]
"""
import argparse
import importlib.util
import math
import os
import sys
import time

# The source folder only when no pytensor is importable (a run from a development checkout): put
# first unconditionally, it would shadow an installed pytensor for every process started later
# (a spawned child starts from this sys.path).
if importlib.util.find_spec("pytensor") is None:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import pytensor as torch  # noqa: E402
from pytensor import nn  # noqa: E402
from pytensor.utils.data import DataLoader, TensorDataset  # noqa: E402


def make_spirals(n_per_class, classes=3, turns=2.0, noise=0.2, generator=None):
    """`classes` interleaved spiral arms of n_per_class points each: the radius r uniform in
    [0, 1), the angle making `turns` turns along an arm, plus Gaussian noise (radians).
    Returns (points (N, 2), labels (N,))."""
    r = torch.rand(classes, n_per_class, generator=generator)
    k = torch.arange(classes).unsqueeze(1)
    theta = (r * (2 * math.pi * turns) + k * (2 * math.pi / classes)
             + torch.randn(classes, n_per_class, generator=generator) * noise)
    points = torch.stack([r * torch.sin(theta), r * torch.cos(theta)], dim=-1).reshape(-1, 2)
    labels = k.expand(classes, n_per_class).reshape(-1)
    return points, labels


def make_model(classes=3, hidden=128):
    return nn.Sequential(
        nn.Linear(2, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, classes),
    )


def accuracy(model, points, labels):
    model.eval()
    with torch.no_grad():
        return (model(points).argmax(dim=1) == labels).float().mean().item()


def train_epoch(model, loader, loss_fn, optimizer):
    """One pass over the training batches; returns the mean loss per point."""
    model.train()
    total, n = 0.0, 0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * yb.size(0)
        n += yb.size(0)
    return total / n


def train(epochs=100, seed=0, classes=3, n_train=500, n_test=200, batch_size=64, lr=0.1,
          progress=True):
    """Trains the MLP and returns a dict: per-epoch mean training losses, the final train and test
    accuracy, the model and the seconds the training took."""
    torch.manual_seed(seed)                 # weight initialisation
    generator = torch.Generator().manual_seed(seed)
    x_train, y_train = make_spirals(n_train, classes, generator=generator)
    x_test, y_test = make_spirals(n_test, classes, generator=generator)
    mean, std = x_train.mean(dim=0), x_train.std(dim=0)    # standardise with the train statistics
    x_train, x_test = (x_train - mean) / std, (x_test - mean) / std
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=batch_size, shuffle=True,
                        generator=generator)

    model = make_model(classes)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)

    losses = []
    start = time.perf_counter()
    for epoch in range(epochs):
        losses.append(train_epoch(model, loader, loss_fn, optimizer))
        scheduler.step()
        if progress and (epoch % 10 == 9 or epoch == 0 or epoch == epochs - 1):
            print(f"epoch {epoch + 1:3d}  loss {losses[-1]:.4f}"
                  f"  lr {scheduler.get_last_lr()[0]:.4f}"
                  f"  train acc {accuracy(model, x_train, y_train):.3f}"
                  f"  test acc {accuracy(model, x_test, y_test):.3f}")
    seconds = time.perf_counter() - start
    return {
        "losses": losses,
        "train_acc": accuracy(model, x_train, y_train),
        "test_acc": accuracy(model, x_test, y_test),
        "model": model,
        "seconds": seconds,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--classes", type=int, default=3)
    args = p.parse_args()
    result = train(args.epochs, args.seed, args.classes)
    print(f"train accuracy {result['train_acc']:.4f}, test accuracy {result['test_acc']:.4f}, "
          f"{result['seconds']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
