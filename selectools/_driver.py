"""Drivers for effect programs: the logic written once as a generator, run four ways.

An *effect program* is a generator that yields what it wants done (an effect: a
model call, a graph node, a step's function) and receives the outcome back from
``yield``. It holds every rule of the work and no I/O, so the same program runs
blocking or on an event loop, streaming or not. A *driver* steps it: it hands
each effect to a *performer*, sends the performer's result back in, or throws
what the performer raised into the program, which applies its own error policy
(retries, a node's ``ErrorPolicy``) with ordinary ``try``/``except``.

The agent loop (``agent/_drivers.py``), the graph engine
(``orchestration/_drivers.py``), graph nodes and generator nodes (``orchestration/_node_run.py``)
and pipeline steps (``pipeline/_effects.py``) are all driven from here; each
supplies only its performers.

- :func:`drive_sync`: performs blocking; never touches asyncio.
- :func:`drive_async`: awaits each performance. It also drives an *async*
  generator program (a user's async generator node), stepping it with ``asend``.
- :func:`drive_sync_stream`: the performer is a generator; what it yields goes
  to the consumer, what it returns goes back into the program.
- :func:`drive_async_stream`: the performer is an async generator; what it
  yields goes to the consumer except a final :class:`Reply`, whose value goes
  back into the program (an async generator cannot ``return`` a value).

Both stream drivers hand out the program's return value as their last item and
close the program if the consumer stops early.

``catch`` is what a performer may raise into the program (``BaseException`` for
the agent, whose program turns a cancellation into a result; ``Exception`` for the
graph; nothing for a generator node, which is left paused where it stood, and
the performer's exception ends the drive). ``settle`` (async drivers) is awaited
after every step of the program, whether it yielded, returned or raised: the
agent flushes its async observers there.

The loop is written out in each driver rather than shared through a helper: it is
most of an agent run's overhead (``benchmarks/bench_overhead.py``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterator
from typing import Any

__all__ = ["Reply", "drive_async", "drive_async_stream", "drive_sync", "drive_sync_stream"]

Program = Generator[Any, Any, Any]
Catch = type[BaseException] | tuple[type[BaseException], ...]


class Reply:
    """The last item an async streaming performer yields: ``value`` goes back into the program."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def drive_sync(
    program: Program,
    perform: Callable[[Any], Any],
    *,
    value: Any = None,
    catch: Catch = BaseException,
) -> Any:
    """Run ``program`` to its end, performing each effect blocking; its return value.

    ``value`` is the first thing sent in (``None`` starts a fresh generator; a
    paused one is continued with its answer).
    """
    send = program.send
    error: BaseException | None = None
    while True:
        try:
            effect = send(value) if error is None else program.throw(error)
        except StopIteration as stop:
            return stop.value
        error = None
        try:
            value = perform(effect)
        except catch as exc:
            value, error = None, exc


async def drive_async(
    program: Any,
    perform: Callable[[Any], Awaitable[Any]],
    *,
    value: Any = None,
    catch: Catch = BaseException,
    settle: Callable[[], Awaitable[None]] | None = None,
) -> Any:
    """Run ``program`` (a generator, or an async generator) to its end, awaiting each effect."""
    stepped_async = hasattr(program, "asend")
    error: BaseException | None = None
    while True:
        try:
            if stepped_async:
                effect = await (program.asend(value) if error is None else program.athrow(error))
            else:
                effect = program.send(value) if error is None else program.throw(error)
        except (StopIteration, StopAsyncIteration) as stop:
            if settle is not None:
                await settle()
            return getattr(stop, "value", None)
        except BaseException:
            if settle is not None:
                await settle()
            raise
        error = None
        if settle is not None:
            await settle()
        try:
            value = await perform(effect)
        except catch as exc:
            value, error = None, exc


def drive_sync_stream(
    program: Program,
    perform: Callable[[Any], Generator[Any, None, Any]],
    *,
    catch: Catch = BaseException,
) -> Iterator[Any]:
    """Run ``program``, yielding what the performers yield, then the program's return value."""
    value: Any = None
    error: BaseException | None = None
    try:
        while True:
            try:
                effect = program.send(value) if error is None else program.throw(error)
            except StopIteration as stop:
                yield stop.value
                return
            value = error = None
            try:
                value = yield from perform(effect)
            except GeneratorExit:  # the consumer stopped: not the program's business
                raise
            except catch as exc:
                error = exc
    finally:
        program.close()


async def drive_async_stream(
    program: Program,
    perform: Callable[[Any], AsyncIterator[Any]],
    *,
    catch: Catch = BaseException,
    settle: Callable[[], Awaitable[None]] | None = None,
) -> AsyncIterator[Any]:
    """As :func:`drive_sync_stream`, awaiting; a performer ends with ``Reply(value)``."""
    value: Any = None
    error: BaseException | None = None
    try:
        while True:
            try:
                effect = program.send(value) if error is None else program.throw(error)
            except StopIteration as stop:
                if settle is not None:
                    await settle()
                yield stop.value
                return
            except BaseException:
                if settle is not None:
                    await settle()
                raise
            value = error = None
            if settle is not None:
                await settle()
            try:
                async for item in perform(effect):
                    if type(item) is Reply:
                        value = item.value
                    else:
                        yield item
            except GeneratorExit:
                raise
            except catch as exc:
                error = exc
    finally:
        program.close()
