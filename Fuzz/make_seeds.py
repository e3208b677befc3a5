#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora, Fixtures/fuzz/<target>/, from the project's fixtures.

Seeds stay small (a few KB each): lines taken from Fixtures/city and Fixtures/scenarios, small
GeoJSON features of each kind, and bad inputs. Run from the repository's root; the output is
committed, so this only needs running again to change the seeds.
"""
import glob
import json
import os
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Fixtures", "fuzz")


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")  # "\udcff" writes the byte 0xFF
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def compact(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def collection(features, indent=None):
    return json.dumps({"type": "FeatureCollection", "features": features}, indent=indent, ensure_ascii=False) + "\n"


def lines(path, first=0, count=None):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        all_lines = f.read().splitlines()
    return all_lines[first:first + count if count else None]


city = json.load(open(os.path.join(ROOT, "Fixtures/city/conditions.geojson"), encoding="utf-8"))["features"]
by_id = {f["id"]: f for f in city}
UUID = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"


def beacon(i, uuid=UUID, major=None, minor=None, assuming=None):
    b = {"uuid": uuid}
    if major is not None:
        b["major"] = major
    if minor is not None:
        b["minor"] = minor
    props = {"beacon": b}
    if assuming:
        props["assuming"] = assuming
    return {"type": "Feature", "id": i, "geometry": None, "properties": props}


def circle(i, lon, lat, radius, assuming=None):
    props = {"radius": radius}
    if assuming:
        props["assuming"] = assuming
    return {"type": "Feature", "id": i, "geometry": {"type": "Point", "coordinates": [lon, lat]}, "properties": props}


def polygon(i, rings):
    return {"type": "Feature", "id": i, "geometry": {"type": "Polygon", "coordinates": rings}, "properties": {}}


def conditions():
    t = "conditions"
    write(t, "city.geojson", open(os.path.join(ROOT, "Fixtures/city/conditions.geojson"), "rb").read())
    write(t, "circles.geojson", collection([by_id["louvre"], by_id["home-marais"], by_id["office-bastille"]]))
    write(t, "polygon-with-hole.geojson", collection([by_id["jardin-luxembourg"]], indent=1))
    write(t, "multipolygon.geojson", collection([by_id["campus-jussieu"]]))
    write(t, "beacons-wildcards.geojson", collection([f for f in city if f["geometry"] is None]))
    write(t, "scenario-02.geojson", open(os.path.join(ROOT, "Fixtures/scenarios/02-when-in-use/conditions.geojson"), "rb").read())
    # More than 64 features: the reader splits the features between its threads.
    many = [beacon(f"b{k}", major=k % 5 or None, minor=k if k % 5 and k % 3 == 0 else None) for k in range(70)]
    many[10] = circle("c10", 4.83, 45.76, 50)
    many[40] = beacon("b3")  # a duplicate identifier
    write(t, "seventy-features.geojson", collection(many))
    # Bad inputs.
    write(t, "bad-not-json.geojson", '{"type":"FeatureCollection","features":[{"type":"Feature",')
    write(t, "bad-bowtie.geojson", collection([polygon("bowtie", [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]])]))
    write(t, "bad-unclosed.geojson", collection([polygon("open", [[[0, 0], [1, 0], [1, 1], [0, 1]]])]))
    write(t, "bad-ranges.geojson", collection([circle("far", 200, 95, -5), circle("big", 0, 0, 1e7),
                                                 beacon("m", major=70000), beacon("u", uuid="not-a-uuid")]))
    write(t, "bad-shapes.geojson", '\ufeff' + compact({"type": "FeatureCollection", "features": [
        {"type": "Feature", "id": 7, "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}, "properties": {}},
        {"type": "Feature", "geometry": None, "properties": {"beacon": {"uuid": UUID, "minor": 1}}},
        {"type": "Feature", "id": "h", "geometry": {"type": "Polygon", "coordinates": [
            [[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[1, 1], [5, 1], [5, 2], [1, 2], [1, 1]]]}, "properties": {"assuming": "maybe"}},
    ]}))
    write(t, "bad-not-collection.geojson", compact(by_id["louvre"]))


def jsonl():
    t = "jsonl"
    write(t, "city-head.jsonl", "\n".join(lines("Fixtures/city/observations.jsonl", 0, 24)) + "\n")
    city_lines = lines("Fixtures/city/observations.jsonl")
    sightings = [l for l in city_lines if '"sighting"' in l]
    write(t, "city-sightings.jsonl", "\n".join(sightings) + "\n")
    # A run of plain fixes longer than the tool's smallest batch (64): its batch path.
    write(t, "city-run.jsonl", "\n".join(city_lines[:90]))
    for name in ["05-provisional-displaced", "09-location-services-off", "17-holding-capacity-2"]:
        write(t, f"scenario-{name[:2]}.jsonl", open(os.path.join(ROOT, f"Fixtures/scenarios/{name}/observations.jsonl"), "rb").read())
    write(t, "styles.jsonl", "\r\n".join([
        '{"type":"fix","device":"a","t":1772352000,"lat":45.76,"lon":4.835,"accuracy":10}',
        '{"type":"fix","device":"a","t":1772352001.5,"lat":4.576e1,"lon":4.835E0,"accuracy":10,"speed":1.5,"course":90,"altitude":null}',
        '{ "device" : "caf\\u00e9", "type" : "fix", "t" : "2026-03-01T08:00:00.123456789+01:00", "lat" : -0.0, "lon" : 180, "accuracy" : 0 }',
        '{"type":"sighting","device":"b","t":"2026-03-01T08:00:00Z","uuid":"e2c56db5-dffb-48d2-b060-d0f5a71096e0","major":1,"minor":7,"rssi":-60,"power":-59}',
        '{"type":"session","device":"b","t":1772352005,"action":"start","id":"s1","goal":"always","fullAccuracyPurpose":"nav"}',
        '   ',
        '{"type":"fix","device":"a","t":17723520.02e2,"lat":45.76,"lon":4.835,"accuracy":-1}',
    ]))
    write(t, "bad-lines.jsonl", "\n".join([
        '{"type":"fix","device":"a","t":1772352000,"lat":45.76,"lon":4.835,"accuracy":10}',
        '{"type":"fix","device":"a","t":1772352000,"lat":"45.76","lon":4.835,"accuracy":10}',
        '{"type":"fax","device":"a","t":1772352001,"lat":45.76,"lon":4.835,"accuracy":10}',
        '[1,2,3]',
        '{"type":"fix","device":"a","t":1772352002,"lat":95,"lon":4.835,"accuracy":10}',
        '{"type":"fix","device":"a","t":1772351000,"lat":45.76,"lon":4.835,"accuracy":10}',
        '{"type":"fix","device":"","t":1772352003,"lat":45.76,"lon":4.835,"accuracy":10}',
        '{"type":"fix","device":"a","t":"2016-12-31T23:59:60Z","lat":45.76,"lon":4.835,"accuracy":10}',
        '{"type":"fix","device":"a","device":"b","t":1772352004,"lat":45.76,"lon":4.835,"accuracy":10}',
        '{"type":"sighting","device":"a","t":1772352005,"uuid":"' + UUID + '","major":70000,"minor":1,"rssi":-60}',
        '{"type":"fix","device":"a","t":1772352006,"lat":45.76,"lon":4.835,"accuracy":10,"what":"always"}',
        '{"type":"fix","device":"a\\ud800","t":1772352007,"lat":45.76,"lon":4.835,"accuracy":1e999}',
        '{"type":"fix","device":"a","t":1772352008,"lat":45.76,"lon":4.835,"accuracy":10',
    ]) + "\n")


def csv():
    t = "csv"
    write(t, "city-head.csv", "\n".join(lines("Fixtures/city/observations.csv", 0, 24)) + "\n")
    city_lines = lines("Fixtures/city/observations.csv")
    write(t, "city-run.csv", "\n".join(city_lines[:100]) + "\n")
    write(t, "city-sightings.csv", "\n".join([city_lines[0]] + [l for l in city_lines if l.startswith("sighting")]) + "\n")
    header = "type,device,t,lat,lon,accuracy,speed,course,altitude,uuid,major,minor,rssi,power,state,what,choice,precise,status"
    write(t, "all-columns.csv", "\r\n".join([
        header,
        'fix,a,1772352000,45.76,4.835,10,1.5,90,120,,,,,,,,,,',
        'fix,"caf\u00e9, 2",2026-03-01T08:00:00.5Z,45.76,4.835,10,,,,,,,,,,,,,',
        'sighting,b,1772352001,,,,,,,' + UUID.lower() + ',1,7,-60,-59,,,,,',
        'app,b,1772352002,,,,,,,,,,,,foreground,,,,',
        'request,b,1772352003,,,,,,,,,,,,,always,,,',
        'answer,b,1772352004,,,,,,,,,,,,,,allowAlways,true,',
        'settings,b,1772352005,,,,,,,,,,,,,,,,denied',
        '  ',
        '"fix","a","1772352006","45.7600","4.8350","0",,,,,,,,,,,,,',
    ]) + "\r\n")
    write(t, "narrow.csv", "device,t,type,lon,lat,accuracy\n" + "".join(
        f"d{k % 3},{1772352000 + k},fix,{4.83 + k * 1e-4:.4f},{45.76 - k * 1e-4:.4f},{k % 20}\n" for k in range(80)))
    write(t, "bad-header.csv", "type,device,time,lat,lon\nfix,a,1,2,3\n")
    write(t, "bad-header-twice.csv", "type,device,t,lat,lat\n")
    write(t, "bad-cells.csv", "\n".join([
        "type,device,t,lat,lon,accuracy",
        "fix,a,1772352000,45.76,4.835,10",
        "fix,a,1772352001,45.76N,4.835,10",
        "fix,a,1772352002,45.76,4.835",
        'fix,"a,1772352003,45.76,4.835,10',
        'fix,a"b,1772352004,45.76,4.835,10',
        'fix,"a"x,1772352005,45.76,4.835,10',
        "fix,a,1772352006,-91,4.835,10",
        "fix,a,1772351000,45.76,4.835,10",
        "fax,a,1772352007,45.76,4.835,10",
        "fix,\udcff,1772352008,45.76,4.835,10",
        "fix,a,1772352009,45.76,4.835,inf",
    ]) + "\n")


def evaluate():
    t = "evaluate"
    city_jsonl = lines("Fixtures/city/observations.jsonl")
    city_csv = lines("Fixtures/city/observations.csv")
    # Without a 0x00 byte: observations only, against the target's default conditions.
    write(t, "default-city-jsonl", "\n".join(city_jsonl[:40]) + "\n")
    write(t, "default-city-csv-run", "\n".join(city_csv[:100]) + "\n")
    write(t, "default-city-sightings", "\n".join([l for l in city_jsonl if '"sighting"' in l] + city_jsonl[-5:]) + "\n")
    # Conditions, 0x00, observations.
    cond = compact({"type": "FeatureCollection", "features": [by_id["louvre"], by_id["jardin-luxembourg"], beacon("any", assuming="satisfied")]})
    write(t, "small-city-jsonl", cond.encode() + b"\0" + ("\n".join(city_jsonl[:30]) + "\n").encode())
    for name in ["05-provisional-displaced", "17-holding-capacity-2", "15-beacon-exit-grace"]:
        d = os.path.join(ROOT, "Fixtures/scenarios", name)
        c = compact(json.load(open(os.path.join(d, "conditions.geojson"), encoding="utf-8")))
        write(t, f"scenario-{name[:2]}", c.encode() + b"\0" + open(os.path.join(d, "observations.jsonl"), "rb").read())
    bad = "\n".join([city_csv[0], city_csv[1], "fix,alice,x,1,2,3", city_csv[2], "fix,bob,2026-03-01T08:00:04Z,95,2.3365,10", city_csv[3]]) + "\n"
    write(t, "default-bad-csv", bad)
    # A run of 96 fixes of 32 devices that start in it: over 256 events in one batch (encoded in
    # parallel). Its length a multiple of 3 (blank line padded): the target's default event budget.
    many = "type,device,t,lat,lon,accuracy\n" + "".join(
        f"fix,d{k % 32},{1772352000 + k},{48.8606 - (k % 7) * 1e-4:.4f},{2.3376 + (k % 5) * 1e-4:.4f},10\n" for k in range(96))
    while len(many.encode()) % 3:
        many += " "
    write(t, "default-many-devices-csv", many)
    # A run of 80 sightings (the engine's batch path for sightings), identities matching the default
    # conditions' beacons and not.
    uuids = ["E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "B9407F30-F5F8-466E-AFF9-25556B57FE6D", "f7826da6-4fa2-4e98-8024-bc5b71e0893e"]
    write(t, "default-sighting-run", "".join(
        compact({"type": "sighting", "device": f"s{k % 9}", "t": 1772352000 + 7 * k, "uuid": uuids[k % 3],
                 "major": [1, 5, 100, 2][k % 4], "minor": [7, 42, 0][k % 3], "rssi": -60 - k % 30}) + "\n" for k in range(80)))
    write(t, "small-bad-jsonl", cond.encode() + b"\0" + ("\n".join(city_jsonl[:5] + ['{"type":"fix"}'] + city_jsonl[5:12]) + "\n").encode())


if __name__ == "__main__":
    for target in ["conditions", "jsonl", "csv", "evaluate"]:
        shutil.rmtree(os.path.join(OUT, target), ignore_errors=True)
    conditions()
    jsonl()
    csv()
    evaluate()
