"""`segcite eval` (design §12) around the pure `evaluation` package: the workspace's segments read from the store,
the questions asked through the app's path (rows, inbox, worker, published answer), the reports written."""
