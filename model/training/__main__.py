"""``python -m model.training``: train the square classifier (see model/training/train.py)."""

from model.training.train import main

raise SystemExit(main())
