"""What the listeners call: message parsing, file fetching, answering, verification."""
