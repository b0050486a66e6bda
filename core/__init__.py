"""The shared base every workflow stands on; it imports no workflow package.

roles (who may do what), web (view helpers), admin (read-only admin bases), tasks (queue
Celery work after commit), providers (a workflow's optional LLM), history (decision
history), protocol (the paper's numbers), release (where the public release lives),
text_diff (word diffs), plots, plot_font and plot_views (every plot of the platform, as
SVG and, through CairoSVG, PNG), display (the statistics pages' labels, family order and
number formats).
"""
