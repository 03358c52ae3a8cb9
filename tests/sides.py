"""Test helpers: the later stages of the camera pipeline on named corner indices."""
def read_side(dets, team="A", source="", image=None, stacks=None):
    """Stages 2-3b of ``vision.pipeline.read_image`` on named corner indices (every one kept)."""
    from vision.config import DEFAULT
    from vision.pipeline import read_image

    return read_image(image, found=dets, team=team, source=source, stacks=stacks,
                      config=DEFAULT.replace(**{"reading.min_conf": 0.0}))[0]


def read_hand(dets, team="A"):
    """``vision.pipeline.read_image(..., hand=True)`` on named corner indices."""
    from vision.config import DEFAULT
    from vision.pipeline import read_image

    return read_image(None, found=dets, team=team, hand=True, config=DEFAULT.replace(**{"reading.min_conf": 0.0}))[0]
