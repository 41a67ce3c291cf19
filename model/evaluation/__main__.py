"""``python -m model.evaluation``: grouped cross-validation and the model card (model/MODEL.md)."""

from model.evaluation.evaluate import main

raise SystemExit(main())
