"""The views: catching up, the lag under load, beside another client's open transaction."""
