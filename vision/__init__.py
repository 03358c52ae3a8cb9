"""handfoot's camera pipeline: detect card corner indices in a photo and turn them into a table layout."""
