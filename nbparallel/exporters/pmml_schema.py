"""What every PMML model element of nbparallel's exports shares: the namespace and the MiningSchema."""

import xml.etree.ElementTree as ET

NS = "http://www.dmg.org/PMML-4_4"


def add_mining_schema(element, names, target):
    """A MiningSchema of the fields ``names`` (an invalid value, such as an unseen category, taken as
    missing) and the target."""
    schema = ET.SubElement(element, "MiningSchema")
    for name in names:
        ET.SubElement(schema, "MiningField", name=name, invalidValueTreatment="asMissing")
    ET.SubElement(schema, "MiningField", name=target, usageType="target")
    return schema
