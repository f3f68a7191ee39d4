"""Training a small CNN on scikit-learn's bundled handwritten digits (1,797 8x8 images, no
download) with `import pytensor as torch`: nn.Conv2d/ReLU/MaxPool2d/Linear, Adam, a seeded
random_split, a DataLoader over a TensorDataset, a checkpoint written with torch.save that PyTorch's
torch.load opens too, and the loss/accuracy curves as a PNG. It reaches about 98% test accuracy.

    pip install scikit-learn            # the dataset; tqdm and matplotlib are optional
    python examples/train_digits.py [--epochs 20] [--out runs/digits] [--seed 0]

With tqdm installed the epochs show as a progress bar, otherwise as one printed line each; with
matplotlib installed the curves go to OUT/curves.png, otherwise that step is skipped with a message.
The checkpoint is OUT/checkpoint.pt: {"epoch", "model_state_dict", "optimizer_state_dict"}.
"""
import argparse
import importlib.util
import os
import sys
import time

# The source folder only when no pytensor is importable (a run from a development checkout): put
# first unconditionally, it would shadow an installed pytensor for every process started later
# (a spawned child starts from this sys.path).
if importlib.util.find_spec("pytensor") is None:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import pytensor as torch  # noqa: E402
import pytensor.nn as nn  # noqa: E402
import pytensor.nn.functional as F  # noqa: E402
from pytensor.utils.data import DataLoader, TensorDataset, random_split  # noqa: E402

SKLEARN_HINT = "train_digits.py needs scikit-learn for its dataset: pip install scikit-learn"


class DigitsCNN(nn.Module):
    """1x8x8 -> conv 16 -> pool -> conv 32 -> pool -> 128 -> 64 -> 10 logits."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(32 * 2 * 2, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))   # 16 x 4 x 4
        x = self.pool(F.relu(self.conv2(x)))   # 32 x 2 x 2
        x = torch.flatten(x, 1)
        x = self.dropout(F.relu(self.fc1(x)))
        return self.fc2(x)


def load_digits_dataset():
    """The digits as a TensorDataset of (N, 1, 8, 8) float32 images in [0, 1] and int64 labels."""
    try:
        from sklearn.datasets import load_digits
    except ImportError as e:
        raise ImportError(SKLEARN_HINT) from e
    digits = load_digits()
    images = torch.tensor(digits.images, dtype=torch.float32).unsqueeze(1) / 16.0
    labels = torch.tensor(digits.target, dtype=torch.long)
    return TensorDataset(images, labels)


def train_epoch(model, loader, loss_fn, optimizer):
    """One pass over the training batches; returns (summed loss, correct predictions, images)."""
    model.train()
    running_loss, correct, n = 0.0, 0, 0
    for images, labels in loader:
        optimizer.zero_grad()
        logits = model(images)
        loss = loss_fn(logits, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * labels.size(0)
        correct += (logits.argmax(dim=1) == labels).sum().item()
        n += labels.size(0)
    return running_loss, correct, n


def evaluate(model, loader, loss_fn):
    model.eval()
    total_loss, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for images, labels in loader:
            logits = model(images)
            total_loss += loss_fn(logits, labels).item() * labels.size(0)
            correct += (logits.argmax(dim=1) == labels).sum().item()
            n += labels.size(0)
    return total_loss / n, correct / n


def save_curves(history, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: skipping the curves (pip install matplotlib)")
        return None
    epochs = range(1, len(history["train_loss"]) + 1)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.plot(epochs, history["train_loss"], label="train")
    ax1.plot(epochs, history["test_loss"], label="test")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("cross-entropy")
    ax1.set_yscale("log")
    ax1.legend()
    ax2.plot(epochs, history["train_acc"], label="train")
    ax2.plot(epochs, history["test_acc"], label="test")
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("accuracy")
    ax2.legend()
    fig.suptitle("pytensor: CNN on the sklearn digits")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def train(epochs=20, out_dir="runs/digits", seed=0, progress=True, batch_size=32, lr=2e-3):
    """Trains DigitsCNN and returns a dict: the final test accuracy and loss, the per-epoch
    history, the model, the checkpoint's path, the PNG's path (None without matplotlib) and the
    seconds the training took."""
    torch.manual_seed(seed)                 # weight initialisation and dropout
    dataset = load_digits_dataset()
    generator = torch.Generator().manual_seed(seed)
    train_set, test_set = random_split(dataset, [0.8, 0.2], generator=generator)
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True, generator=generator)
    test_loader = DataLoader(test_set, batch_size=256)

    model = DigitsCNN()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    bar = None
    epoch_iter = range(1, epochs + 1)
    if progress:
        try:
            from tqdm import tqdm
            bar = epoch_iter = tqdm(epoch_iter, desc="digits", unit="epoch")
        except ImportError:
            pass

    history = {"train_loss": [], "train_acc": [], "test_loss": [], "test_acc": []}
    start = time.perf_counter()
    for epoch in epoch_iter:
        running_loss, correct, n = train_epoch(model, train_loader, loss_fn, optimizer)
        test_loss, test_acc = evaluate(model, test_loader, loss_fn)
        history["train_loss"].append(running_loss / n)
        history["train_acc"].append(correct / n)
        history["test_loss"].append(test_loss)
        history["test_acc"].append(test_acc)
        if bar is not None:
            bar.set_postfix(loss=f"{running_loss / n:.4f}", test_acc=f"{test_acc:.3f}")
        elif progress:
            print(f"epoch {epoch:3d}  train loss {running_loss / n:.4f}"
                  f"  train acc {correct / n:.3f}  test loss {test_loss:.4f}"
                  f"  test acc {test_acc:.3f}")
    seconds = time.perf_counter() - start
    if bar is not None:
        bar.close()

    os.makedirs(out_dir, exist_ok=True)
    checkpoint = os.path.join(out_dir, "checkpoint.pt")
    torch.save({
        "epoch": epochs,
        "model_state_dict": model.state_dict(),
        "optimizer_state_dict": optimizer.state_dict(),
    }, checkpoint)
    curves = save_curves(history, os.path.join(out_dir, "curves.png")) if epochs else None
    return {
        "test_acc": history["test_acc"][-1] if epochs else None,
        "test_loss": history["test_loss"][-1] if epochs else None,
        "history": history,
        "model": model,
        "test_set": test_set,
        "checkpoint": checkpoint,
        "curves": curves,
        "seconds": seconds,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--out", default=os.path.join("runs", "digits"),
                   help="folder for checkpoint.pt and curves.png (default: ./runs/digits)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    if args.epochs < 1:
        p.error("--epochs must be at least 1")
    try:
        result = train(args.epochs, args.out, args.seed)
    except ImportError as e:
        if SKLEARN_HINT not in str(e):
            raise
        print(SKLEARN_HINT, file=sys.stderr)
        return 1
    print(f"test accuracy {result['test_acc']:.4f} (test loss {result['test_loss']:.4f}) after "
          f"{args.epochs} epochs, {result['seconds']:.1f} s")
    print(f"checkpoint: {result['checkpoint']}")
    if result["curves"]:
        print(f"curves: {result['curves']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
