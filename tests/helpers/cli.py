"""Reading what the command line prints."""


def printed_rows(text, heading):
    """The rows of the table printed under the line starting with
    ``heading`` (after its header line), up to the next blank line."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    rows = []
    for line in lines[start + 2 :]:
        if not line.strip() or line.startswith("..."):
            break
        rows.append(line.split())
    return rows, lines[start]
