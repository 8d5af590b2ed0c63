"""Every Triton form the registry names declares the interface of kernels_triton/forms.py, and the harness refuses a
module that does not, saying what it lacks."""

from __future__ import annotations

import importlib
import inspect

import pytest

from harness.launch import triton as launch_triton
from harness.registry import KERNELS, Counterpart
from kernels_triton.forms import AutotunedForm, TritonForm

MODULES = sorted({c.module for k in KERNELS for c in k.counterparts} | {"gemm_tutorial"})


@pytest.mark.parametrize("name", MODULES)
def test_every_form_declares_the_interface_and_only_tuned_forms_report_a_choice(name: str) -> None:
    mod = importlib.import_module(f"kernels_triton.{name}")
    assert isinstance(mod, TritonForm)
    # a form tunes where its source applies triton.autotune (at import, or per search space at launch)
    tuned = "triton.autotune(" in inspect.getsource(mod)
    assert isinstance(mod, AutotunedForm) == tuned, f"{name}: an autotuner and chosen_config go together"


def test_a_module_that_is_no_form_is_refused_with_what_it_lacks() -> None:
    with pytest.raises(TypeError, match="lacks KERNEL, SIGNATURE, constexprs, launch"):
        launch_triton.module(Counterpart("x", "forms"))


def test_a_form_without_a_tuner_reports_no_choice() -> None:
    plain = next(c for k in KERNELS for c in k.counterparts if c.module == "gemm_tile")
    assert launch_triton.chosen_config(plain) is None
