"""The keel command's implementation, one concern per module."""
