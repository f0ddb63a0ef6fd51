//! The facts written in notes (and one routine), with the passages around them (the table's
//! format is in `facts.rs`).

pub(crate) const NOTED: &str = r"
fact 15 note notes/home/wifi.md | tangerine-harbour-82 | ## Wi-Fi\n\nThe router lives in the hall cupboard. Network is ollim-home-5G and the password is tangerine-harbour-82.
ask one | What's the internet code for the router?
agent | wifi password router network key WiFi code internet broadband
near 107 main said | The router keeps dropping the connection, restarting it for the third time today.
near 190 note notes/work/vpn.md | ## VPN\n\nThe work VPN password rotates every 90 days and IT sends a reset link.
near 260 main said | The guest wifi code at Maya's is on the fridge, I always forget.
near 325 main said | Changed the password for the bank app, it's in the password manager now.
near 350 main answer | The internet company says the new router arrives Thursday; keep the old one's box for the return.

fact 220 note notes/health/therapy.md | Whitcombe | ## Therapy\n\nNew therapist is Jo Whitcombe, Tuesdays at 6pm online, £55 a session, with a sliding scale if money gets tight.
ask one | What's the name of the counsellor I see on Tuesdays?
agent | counsellor therapist counselling therapy Tuesday sessions name
near 108 main said | The therapy waitlist is eighteen weeks. Eighteen.
near 181 note notes/weekly-rhythm.md | ## Tuesdays\n\nBins out, then the therapy homework, then nothing else. Tuesdays are for being gentle.
near 309 main said | My therapist said to try body doubling for the boring admin.
near 326 main said | Aisha's counsellor is also on Tuesdays, we could get coffee after.

fact 280 note notes/travel/edinburgh-october.md | Dundas Street | ## Where we're staying\n\nThe flat is on Dundas Street, check-in after 4pm, key safe code 2580. Maya has the booking email.
ask none | Where's the apartment we rented for the Scotland trip?
agent | Scotland trip holiday rental apartment flat Airbnb cottage accommodation address Edinburgh Glasgow Highlands booked
near 67 main said | Edinburgh flights are cheaper than the train, somehow.
near 212 main said | Ben is renting a flat in Leith for the festival, jealous.
near 311 note notes/travel/edinburgh-costs.md | ## Edinburgh costs\n\nSplit with Maya: £212 each for the flat, trains separate.
near 327 main said | The apartment in Porto was lovely, I'd go back in a heartbeat.

fact 120 note notes/money/phone-claim.md | CL-90412-B | ## Phone screen claim\n\nClaim for the cracked screen is with Cover+ under claim number CL-90412-B. They want photos and the receipt.
ask two | What's the claim number for my broken phone?
agent | phone insurance claim number broken cracked screen damaged reference
near 55 main said | The phone bill has a roaming charge on it, I wasn't even abroad.
near 183 main said | Ben's insurance claim for the stolen bike took months.
near 242 main said | Bought a screen protector for the phone, should have done that in January.
near 328 main answer | The claim form for the dental expenses needs the receipt number from the practice; it's on the email from 4 November.

fact 46 note notes/food/dal.md | squeeze of lime | ## Red lentil dal\n\nAisha's trick: fry the spices in ghee at the very end, pour them over, then a squeeze of lime right before serving.
ask two | What was Aisha's secret for the lentil curry?
agent | Aisha lentil curry dal dhal recipe secret ingredient tip trick
near 92 main said | Red lentils and coconut milk on the list please.
near 161 note notes/food/chickpea-curry.md | ## Chickpea curry\n\nOnion, garlic, ginger, a tin of tomatoes, garam masala at the end. Freezes well.
near 261 main said | Aisha's coming for dinner on Friday, I want to cook something that isn't pasta.
near 329 note notes/food/lentil-soup.md | ## Lentil soup\n\nBrown lentils, carrot, celery, a stock cube. Forty minutes. Lemon at the end.
near 346 main answer | You wanted to ask Aisha for the recipe of the curry she brought to the party; I've added it to your list for when you see her Friday.

fact 65 note notes/money/savings.md | Marcus savings pot | ## Emergency fund\n\nDecided: £150 goes into the Marcus savings pot on the 2nd of every month until it reaches three months of rent.
ask two | How much did I say I'd put aside every month for emergencies?
agent | emergency fund savings put aside every month per month save amount budget
near 32 main said | I really need some kind of rainy day fund, one boiler problem and I'm done.
near 121 main said | Saving for the Lisbon trip: £200 so far.
near 200 note notes/money/budget-july.md | ## July budget\n\nGroceries £250, transport £90, fun money £60 a month, the rest to bills.
near 321 main answer | The emergency vet fee last month was £90; if it happens again it could come out of the savings.

fact 100 note notes/health/eyes.md | left -2.25 | ## Eyes\n\nNew prescription from the optician: left -2.25, right -2.50, slight astigmatism. Next eye test in two years.
ask none | What's the strength of my glasses now?
agent | glasses prescription optician eye test lenses sphere cylinder strength
near 42 main said | The optician moved my appointment to next Thursday.
near 162 main said | Lost my glasses case; the glasses are fine, just rattling around in my bag.
near 295 main said | The optician sent a reminder for an eye test, didn't I just have one?
near 340 note notes/health/contacts.md | ## Contact lenses\n\nMonthly lenses, order a six-month box in January.

fact 130 note notes/running.md | bib number 1187 | ## Riverside 10K\n\nSigned up for the Riverside 10K on 20 September, bib number 1187. Start is at 9am, bag drop by the bandstand.
ask none | What race did I enter in the autumn?
agent | race entered signed up registered run half marathon 10k marathon autumn
near 93 main said | Went for a run, only 3k but it counts.
near 213 main said | Sam's doing the half marathon in October, I'm going to cheer.
near 296 main said | There's a parkrun at Riverside on Saturdays, maybe that's a gentler start.
near 330 main said | My running shoes are completely worn out.
near 347 main said | Jonas wants us to enter a fun run in the spring, a race with costumes.

fact 80 note notes/money/tax.md | Fenwick & Lowe | ## Self-assessment\n\nThe accountant is Fenwick & Lowe; they want the receipts folder by 31 October, and my UTR is on the letter in the blue folder.
ask none | Who's doing my tax return?
agent | tax return accountant self assessment doing my taxes bookkeeper
near 33 main said | Got a tax code letter from HMRC, no idea what it means.
near 157 main said | Ben's accountant charges a fortune, maybe I can do it myself.
near 254 main said | The receipts folder is an absolute mess, I'm avoiding it.
near 331 main said | The council tax bill went up again. Also, is the tax return deadline in January?

fact 148 note notes/home/appliances.md | FZ-3318-HK | ## Fridge freezer\n\nBought from Currys on 28 May. Five-year guarantee, number FZ-3318-HK, the paperwork is in the kitchen drawer.
ask two | Is the fridge still under guarantee?
agent | fridge freezer warranty guarantee purchased bought expiry appliance
near 68 main said | The fridge is making a weird humming noise at night.
near 214 main said | The washing machine's guarantee ran out last year, of course it broke now.
near 297 main said | Need to defrost the freezer, there's a glacier in there.
near 341 main said | Maya's new fridge came with a guarantee card she already lost.

fact 230 note notes/people/addresses.md | 27 Larkfield Road | ## Hannah\n\nHannah's new address: 27 Larkfield Road, flat 3. The buzzer doesn't work, text when outside.
ask one | Where does Hannah live now?
agent | Hannah moved new address lives living city house
near 109 main said | Hannah's moving in August, she needs boxes.
near 184 main said | Hannah's housewarming is on the 30th, bring plants?
near 283 main said | Send Hannah the photos from the lake.
near 342 main said | Hannah's birthday is on the 9th, get a card.

fact 125 note notes/work/office.md | locker is number 212 | ## Office\n\nHot-desking on floor 3. My locker is number 212 and the kitchen fob lives on the lanyard.
ask one | Which locker is mine at work?
agent | locker number work office locker assigned
near 171 main said | The locker at the swimming pool ate my pound coin.
near 215 main said | The office kitchen rota is a whole political thing.
near 298 main said | Moved desks at work, now by the window.
near 343 note notes/work/christmas-party.md | ## Office party\n\nFriday 19th, Secret Santa limit £10. Coats go in the lockers by the lift.

fact 10 note notes/health/allergies.md | dust mites | ## Allergies\n\nThe allergy test came back: it's dust mites, not the cat, thank god. Wash the bedding at 60 and get a mattress cover.
ask none | What turned out to be making me sneeze?
agent | sneezing allergy allergic cause trigger allergy test hay fever dust pollen
near 81 main said | Hay fever is awful this year, my eyes are streaming.
near 163 main said | Pickle sheds everywhere, I'm covered in cat hair.
near 299 main said | Sneezing all day, I think a cold is coming.
near 344 main said | Bought a new hoover, the old one just pushed the dust around.

fact 175 note notes/home/plants.md | fiddle-leaf fig | ## Plants\n\nThe fiddle-leaf fig wants water only when the top two inches of soil are dry, about every ten days; the monstera likes it weekly.
ask two | How often should I water the big plant in the living room?
agent | water watering big plant living room how often schedule houseplant
near 69 main said | Watering the plants was the only thing I did today and I'm counting it.
near 216 main said | Maya gave me a cutting of her pothos, it's in a jam jar of water.
near 310 main said | The plants look sad, am I overwatering them?
near 345 main answer | The big plant in Maya's living room is a rubber plant; they like bright light and water every couple of weeks.

fact 305 note routines/bin-day.md | brown garden bin | # Bin day\n\nRecycling goes out on Sunday night for Monday. The brown garden bin only goes out on odd weeks.
ask two | Which week does the compost bin go out?
agent | compost bin food waste green bin collection day week bins schedule
near 110 main said | Forgot to take the bins out again, they're overflowing.
near 217 main said | The council changed the bin collection day to Tuesday.
near 332 main said | The bins weren't collected this week, is it a bank holiday thing?
near 350 main said | The compost caddy in the kitchen smells, I'll empty it tonight.
";
