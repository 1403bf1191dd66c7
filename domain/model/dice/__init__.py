"""The dice: the verifiable server draw and reported faces (``draw``), dice notation and the
evaluation of a roll's faces (``notation``), and dice held to a campaign's dice house rules and
commitment (``checked``). Standard library only.
"""
