# Runnable version of the example in seed 000: a one-layer model, MSE loss, and a
# second backward() on the same loss, which fails because the first one freed the graph.
import torch


class TinyRegressor(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(1, 1)

    def forward(self, x):
        return self.layer(x)


model = TinyRegressor()
sample = torch.randn(1)

prediction = model(sample)
loss = torch.nn.MSELoss()(prediction, torch.tensor([1.0]))

loss.backward()
loss.backward()  # RuntimeError: Trying to backward through the graph a second time
print("two backward passes done")
