"""A tiny character-level transformer language model trained with `import pytensor as torch` on
text that ships with Python: the source of the standard library's `argparse` module. nn.Embedding
for the characters plus a learned positional embedding, an nn.TransformerEncoder of pre-norm
layers run with a causal mask, a Linear head; AdamW, gradient clipping with
nn.utils.clip_grad_norm_, and at the end a continuation sampled with torch.multinomial from a
seeded torch.Generator. The training loss falls from ln(vocabulary) (ln 88 ~ 4.5 here) to about 1.1
(validation about 1.15) in the default 500 steps, some 20 s on two cores; the sample then looks
like Python whose words are half right.

    python examples/train_chars.py [--steps 500] [--seed 0] [--sample-chars 300]
"""
import argparse
import importlib.util
import inspect
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
from pytensor.nn import functional as F  # noqa: E402


def load_text():
    """The training text: argparse's source, which every CPython ships."""
    return inspect.getsource(argparse)


class CharTransformer(nn.Module):
    def __init__(self, vocab_size, block_size=64, d_model=64, nhead=4, num_layers=2,
                 dim_feedforward=256, dropout=0.0):
        super().__init__()
        self.block_size = block_size
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position_embedding = nn.Embedding(block_size, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout,
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        T = idx.size(1)
        positions = torch.arange(T, device=idx.device)
        x = self.token_embedding(idx) + self.position_embedding(positions)
        mask = nn.Transformer.generate_square_subsequent_mask(T, device=idx.device)
        x = self.encoder(x, mask=mask, is_causal=True)
        return self.head(self.norm(x))

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=0.8, generator=None):
        for _ in range(max_new_tokens):
            logits = self(idx[:, -self.block_size:])[:, -1, :] / temperature
            probs = F.softmax(logits, dim=-1)
            next_id = torch.multinomial(probs, num_samples=1, generator=generator)
            idx = torch.cat([idx, next_id], dim=1)
        return idx


def get_batch(data, batch_size, block_size, generator):
    ix = torch.randint(len(data) - block_size - 1, (batch_size,), generator=generator).tolist()
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + block_size] for i in ix])
    return x, y


@torch.no_grad()
def estimate_loss(model, data, batch_size, block_size, generator, batches=4):
    model.eval()
    losses = []
    for _ in range(batches):
        x, y = get_batch(data, batch_size, block_size, generator)
        logits = model(x)
        losses.append(F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1)).item())
    model.train()
    return sum(losses) / len(losses)


def train_step(model, optimizer, x, y):
    """One optimizer step on the batch (x, y) with the gradients clipped; returns the loss."""
    logits = model(x)
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()
    return loss


def train(steps=500, seed=0, batch_size=32, block_size=64, lr=1e-2, sample_chars=300,
          log_every=50, progress=True):
    """Trains the model and returns a dict: the per-step training losses, the validation loss at
    the start and the end, ln(vocabulary size), the sampled text, the model and the seconds."""
    torch.manual_seed(seed)                 # weight initialisation
    generator = torch.Generator().manual_seed(seed)
    text = load_text()
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    itos = {i: c for c, i in stoi.items()}
    data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    n = int(0.9 * len(data))
    train_data, val_data = data[:n], data[n:]

    model = CharTransformer(len(chars), block_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.LambdaLR(      # short warm-up, then cosine decay
        optimizer, lambda s: min(1.0, (s + 1) / 20) * 0.5 * (1 + math.cos(math.pi * s / steps)))
    if progress:
        n_params = sum(p.numel() for p in model.parameters())
        print(f"{len(text)} characters, vocabulary {len(chars)} (ln = {math.log(len(chars)):.2f}),"
              f" {n_params} parameters")
    val_start = estimate_loss(model, val_data, batch_size, block_size, generator)

    losses = []
    start = time.perf_counter()
    model.train()
    for step in range(steps):
        x, y = get_batch(train_data, batch_size, block_size, generator)
        loss = train_step(model, optimizer, x, y)
        scheduler.step()
        losses.append(loss.item())
        if progress and (step % log_every == 0 or step == steps - 1):
            print(f"step {step:4d}  loss {loss.item():.4f}  ({time.perf_counter() - start:.1f} s)")
    seconds = time.perf_counter() - start
    val_end = estimate_loss(model, val_data, batch_size, block_size, generator)

    model.eval()
    prompt = "def "
    context = torch.tensor([[stoi[c] for c in prompt]], dtype=torch.long)
    out = model.generate(context, sample_chars, generator=generator)
    sample = "".join(itos[i] for i in out[0].tolist())
    return {
        "losses": losses,
        "val_loss_start": val_start,
        "val_loss_end": val_end,
        "ln_vocab": math.log(len(chars)),
        "sample": sample,
        "model": model,
        "seconds": seconds,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sample-chars", type=int, default=300)
    args = p.parse_args()
    result = train(args.steps, args.seed, sample_chars=args.sample_chars)
    print(f"validation loss {result['val_loss_start']:.4f} -> {result['val_loss_end']:.4f} "
          f"after {args.steps} steps, {result['seconds']:.1f} s")
    print("sample:")
    print(result["sample"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
