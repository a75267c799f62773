"""Resolve a loss given by name or object."""

from __future__ import annotations

import importlib

from .base import Loss

__all__ = ["resolve_loss", "LOSS_NAMES"]

# name -> (module, class); multiclass losses live in losses/multiclass.py (imported lazily)
LOSS_NAMES = {
    "squared": ("regression", "Squared"),
    "absolute": ("regression", "Absolute"),
    "epsilon_insensitive": ("regression", "EpsilonInsensitive"),
    "huber": ("regression", "Huber"),
    "quantile": ("regression", "Quantile"),
    "hinge": ("classification", "Hinge"),
    "squared_hinge": ("classification", "SquaredHinge"),
    "logistic": ("classification", "Logistic"),
    "weston_watkins": ("multiclass", "WestonWatkins"),
    "crammer_singer": ("multiclass", "CrammerSinger"),
}
# scikit-learn's spellings (SGDClassifier/SGDRegressor, HistGradientBoosting) of the same losses
ALIASES = {"squared_error": "squared", "absolute_error": "absolute", "log_loss": "logistic"}


def resolve_loss(loss, **params) -> Loss:
    """Turn a loss name or :class:`~kernelkit.losses.Loss` instance into a Loss.

    Parameters
    ----------
    loss : str or Loss
        One of ``"squared"``, ``"absolute"``, ``"epsilon_insensitive"``, ``"huber"``,
        ``"quantile"``, ``"hinge"``, ``"squared_hinge"``, ``"logistic"``,
        ``"weston_watkins"``, ``"crammer_singer"`` (scikit-learn's ``"squared_error"``,
        ``"absolute_error"`` and ``"log_loss"`` are accepted too), or a Loss (returned as is).
    **params
        Constructor arguments for a named loss (``epsilon=``, ``delta=``, ``q=``); keys whose
        value is ``None`` are dropped so that estimators can pass all of theirs.

    Examples
    --------
    >>> from kernelkit.losses import resolve_loss
    >>> resolve_loss("epsilon_insensitive", epsilon=0.2)
    EpsilonInsensitive(epsilon=0.2)
    """
    if isinstance(loss, Loss):
        return loss
    key = ALIASES.get(loss.lower(), loss.lower()) if isinstance(loss, str) else None
    if key not in LOSS_NAMES:
        raise ValueError(
            f"Unknown loss {loss!r}; use one of {sorted(LOSS_NAMES)} or a kernelkit Loss."
        )
    module, cls_name = LOSS_NAMES[key]
    try:
        cls = getattr(importlib.import_module(f"{__package__}.{module}"), cls_name)
    except (ImportError, AttributeError) as exc:  # multiclass.py not written yet
        raise ValueError(f"Loss {loss!r} is not available in this build ({exc}).") from exc
    import inspect

    accepted = inspect.signature(cls).parameters
    kwargs = {k: v for k, v in params.items() if v is not None and k in accepted}
    return cls(**kwargs)
