"""Views of the core types: HTML/text renderings and trace charts.

Plain string building over public attributes, with no IPython import, so the
core's display hooks (``RichDisplay._repr_mimebundle_``, ``AgentTrace.gantt``)
can use it from any frontend. pandas and plotly are imported inside the chart
functions only, with an error naming the ``notebook`` extra when missing.
The IPython glue (magics, live view, frontend detection) is :mod:`selectools.notebook`.
"""
