"""The models' parameter records, shared by the engines, the models and the reports:
:class:`~qtheory.model.gated.GatedQueue`, :class:`~qtheory.model.lossnet.LossNetwork`
(two classes or n),
:class:`~qtheory.model.single_use.SingleUseNetwork`, the loss network's sample paths
(:mod:`qtheory.model.paths`) and its Sympy symbols
(:mod:`qtheory.model.lossnet_symbols`).  They import only :mod:`qtheory.core`.
"""
