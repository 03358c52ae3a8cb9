"""The models the camera pipeline runs (detector, index reader, stack checker) and the inference backends they
run on; each wrapper takes images and boxes and returns arrays. The stages import them, never the other way."""
