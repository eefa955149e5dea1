"""The date of the Granite 3.x default system prompt ("Today's Date: April 06, 2025")."""

from __future__ import annotations

import datetime

__all__ = ["current_date", "format_date"]

#: English month names, as ``%B`` prints them under the C locale.
_MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_DAY_NUMBERS = tuple(f" {number:02d}, " for number in range(32))


def current_date() -> datetime.date:
    """Today's date in local time: the clock a formatter reads when no date is given.

    Read at every call (never cached). Tests replace this function
    (``granite_formatters.granite3.dates.current_date``) to move the clock.
    """
    return datetime.date.today()


def format_date(day: datetime.date) -> str:
    """``day`` as the templates print it: ``strftime('%B %d, %Y')``, e.g. ``April 06, 2025``.

    The month name is English whatever the process locale; the day is zero-padded.
    """
    return _MONTH_NAMES[day.month - 1] + _DAY_NUMBERS[day.day] + str(day.year)
