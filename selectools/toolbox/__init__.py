"""Ready-made tools. ``selectools.toolbox.reasoning_tools`` holds the bounded think/analyze tools.

(Placeholder package: the toolbox issue brings the five tool categories; on merge
keep its ``__init__`` — this one adds nothing.)
"""
