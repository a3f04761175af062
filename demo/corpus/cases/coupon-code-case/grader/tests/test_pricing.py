from decimal import Decimal

import pytest

from shop.pricing import UnknownCoupon, apply_discount, coupon_percent, line_total, tax_for


def test_apply_discount():
    assert apply_discount(1000, 10) == 900
    assert apply_discount(1999, 0) == 1999


def test_discount_rounds_half_up():
    # 15% of 1999 cents is 299.85 cents
    assert apply_discount(1999, 15) == 1699


def test_discount_percent_out_of_range():
    with pytest.raises(ValueError):
        apply_discount(1000, 101)


def test_line_total():
    assert line_total(349, 3) == 1047


def test_tax_for():
    assert tax_for(1000, Decimal("0.08")) == 80
    assert tax_for(0, Decimal("0.08")) == 0


def test_tax_rounds_to_nearest_cent():
    # 8.25% of 1999 cents is 164.9175 cents
    assert tax_for(1999, Decimal("0.0825")) == 165
    assert tax_for(349, Decimal("0.10")) == 35
    assert tax_for(344, Decimal("0.10")) == 34


def test_known_coupon():
    assert coupon_percent("SAVE10") == 10


def test_unknown_coupon_raises():
    with pytest.raises(UnknownCoupon):
        coupon_percent("FREESTUFF")


def test_coupon_codes_ignore_case_and_spaces():
    assert coupon_percent("save10") == 10
    assert coupon_percent(" Welcome5 ") == 5
